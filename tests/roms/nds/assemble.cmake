# Links the Nintendo DS test ROM with the header's two CRC-16 fields right (cmake -P).
#
# Both are the CRC-16 with the reflected polynomial 0xA001 and initial value 0xFFFF: at 0x15C
# of the logo area (0x0C0-0x15B, zero here), at 0x15E of the header before it (0x000-0x15D,
# which includes the first). The logo's is computed from its 156 zero bytes; the ROM is
# linked once with the header's CRC 0, its first 0x15E bytes summed, linked again with the
# CRC (nds.ld's symbols LOGO_CRC and HEADER_CRC, given with --defsym), and checked.
#
#   cmake -DLD=<arm-none-eabi-ld> -DOBJCOPY=<arm-none-eabi-objcopy> -DSCRIPT=<nds.ld>
#         -DARM9=<arm9.o> -DARM7=<arm7.o> -DWORK=<dir> -DOUTPUT=<.nds> -P assemble.cmake

foreach(var LD OBJCOPY SCRIPT ARM9 ARM7 WORK OUTPUT)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "assemble.cmake needs -D${var}=...")
    endif()
endforeach()

# crc16(<hex digits> <var>): the CRC-16 of the bytes the digits spell.
function(crc16 hex var)
    string(REGEX MATCHALL ".." bytes "${hex}")
    set(crc 0xFFFF)
    foreach(b IN LISTS bytes)
        math(EXPR crc "${crc} ^ 0x${b}")
        foreach(bit RANGE 7)
            math(EXPR crc "(${crc} >> 1) ^ ((${crc} & 1) * 0xA001)")
        endforeach()
    endforeach()
    set(${var} ${crc} PARENT_SCOPE)
endfunction()

function(link output logo_crc header_crc)
    execute_process(
        COMMAND ${LD} -T ${SCRIPT} --defsym LOGO_CRC=${logo_crc} --defsym HEADER_CRC=${header_crc}
                -Map ${WORK}/framelock_test.map -o ${WORK}/framelock_test.elf ${ARM9} ${ARM7}
        RESULT_VARIABLE failed)
    if(failed)
        message(FATAL_ERROR "${LD} failed linking ${output}")
    endif()
    execute_process(COMMAND ${OBJCOPY} -O binary ${WORK}/framelock_test.elf ${output}
                    RESULT_VARIABLE failed)
    if(failed)
        message(FATAL_ERROR "${OBJCOPY} failed writing ${output}")
    endif()
endfunction()

# header_crcs(<file> <var>): the CRC-16s of the file's logo area and header (<var>_logo,
# <var>_header), and the two stored (<var>_stored_logo, <var>_stored_header).
function(header_crcs file var)
    file(READ ${file} header LIMIT 352 HEX)
    string(SUBSTRING "${header}" 384 312 logo)  # bytes 0x0C0-0x15B
    string(SUBSTRING "${header}" 0 700 covered)  # bytes 0x000-0x15D
    crc16("${logo}" logo_crc)
    crc16("${covered}" header_crc)
    foreach(field logo:696 header:700)
        string(REPLACE ":" ";" field "${field}")
        list(GET field 0 name)
        list(GET field 1 at)
        string(SUBSTRING "${header}" ${at} 4 word)
        string(SUBSTRING "${word}" 0 2 low)
        string(SUBSTRING "${word}" 2 2 high)
        math(EXPR stored "0x${high}${low}")
        set(${var}_stored_${name} ${stored} PARENT_SCOPE)
    endforeach()
    set(${var}_logo ${logo_crc} PARENT_SCOPE)
    set(${var}_header ${header_crc} PARENT_SCOPE)
endfunction()

string(REPEAT "00" 156 zero_logo)
crc16("${zero_logo}" logo_crc)
link(${OUTPUT} ${logo_crc} 0)
header_crcs(${OUTPUT} first)
link(${OUTPUT} ${logo_crc} ${first_header})
header_crcs(${OUTPUT} final)
if(NOT final_logo EQUAL final_stored_logo OR NOT final_header EQUAL final_stored_header)
    message(FATAL_ERROR "${OUTPUT}: header CRCs stored ${final_stored_logo}, "
                        "${final_stored_header}; computed ${final_logo}, ${final_header}")
endif()
