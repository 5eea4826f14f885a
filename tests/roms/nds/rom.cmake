# Nintendo DS test ROM (included by ../CMakeLists.txt, whose variables it uses): ARM assembly
# for the two CPUs, assembled with the ARM assembler of binutils-arm-none-eabi (the ARM9 for
# ARMv5TE, the ARM7 for ARMv4T); assemble.cmake links them with nds.ld into one cartridge
# image (objcopy -O binary) and writes the header's two CRC-16 fields. framelock_test.s holds
# the header (no boot logo) and the ARM9 program, arm7.s the ARM7 program.
#
# Appends the ROM to `roms` and sets FRAMELOCK_TEST_NDS_ROM (empty without the tools).

if(FRAMELOCK_ARM_AS AND FRAMELOCK_ARM_LD AND FRAMELOCK_ARM_OBJCOPY)
    set(nds_dir ${CMAKE_CURRENT_SOURCE_DIR}/nds)
    set(nds_obj ${obj_dir}/nds)
    set(nds_rom ${rom_dir}/framelock_test.nds)
    file(MAKE_DIRECTORY ${nds_obj})
    add_custom_command(
        OUTPUT ${nds_rom}
        COMMAND ${FRAMELOCK_ARM_AS} -I ${CMAKE_CURRENT_SOURCE_DIR}/common -mcpu=arm946e-s -o ${nds_obj}/arm9.o ${nds_dir}/framelock_test.s
        COMMAND ${FRAMELOCK_ARM_AS} -mcpu=arm7tdmi -o ${nds_obj}/arm7.o ${nds_dir}/arm7.s
        COMMAND ${CMAKE_COMMAND} -DLD=${FRAMELOCK_ARM_LD} -DOBJCOPY=${FRAMELOCK_ARM_OBJCOPY}
                -DSCRIPT=${nds_dir}/nds.ld -DARM9=${nds_obj}/arm9.o -DARM7=${nds_obj}/arm7.o
                -DWORK=${nds_obj} -DOUTPUT=${nds_rom} -P ${nds_dir}/assemble.cmake
        DEPENDS ${nds_dir}/framelock_test.s ${nds_dir}/arm7.s ${nds_dir}/nds.ld
                ${nds_dir}/assemble.cmake ${arm_includes}
        WORKING_DIRECTORY ${nds_obj}
        COMMENT "Assembling Nintendo DS test ROM framelock_test.nds"
        VERBATIM)
    list(APPEND roms ${nds_rom})
    set(FRAMELOCK_TEST_NDS_ROM ${nds_rom} CACHE INTERNAL "Nintendo DS test ROM (empty: not built)")
else()
    message(STATUS "binutils-arm-none-eabi (arm-none-eabi-as, -ld, -objcopy) not found: the "
                   "Nintendo DS test ROM is not built and the tests needing it will be skipped "
                   "(Debian: apt-get install binutils-arm-none-eabi).")
endif()
